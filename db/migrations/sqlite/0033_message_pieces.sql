CREATE TABLE `channel_message_pieces` (
	`message_id` integer NOT NULL,
	`piece` integer NOT NULL,
	`provider_message_id` text NOT NULL,
	PRIMARY KEY(`message_id`, `piece`),
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
