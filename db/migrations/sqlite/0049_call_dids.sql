CREATE TABLE `call_did_agents` (
	`did_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`did_id`, `user_id`),
	FOREIGN KEY (`did_id`) REFERENCES `call_dids`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `call_did_agents_user_idx` ON `call_did_agents` (`user_id`);--> statement-breakpoint
CREATE TABLE `call_dids` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`number` text NOT NULL,
	`department_id` integer,
	`ring_timeout_seconds` integer DEFAULT 20 NOT NULL,
	`voicemail` integer DEFAULT true NOT NULL,
	`greeting` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`department_id`) REFERENCES `departments`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `call_dids_number_idx` ON `call_dids` (`number`);