CREATE TABLE `ai_call_hints` (
	`call_id` integer NOT NULL,
	`ticket_id` integer NOT NULL,
	`kind` text NOT NULL,
	`evidence` text NOT NULL,
	`hint_values` text DEFAULT '{}' NOT NULL,
	`confidence` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`call_id`, `kind`, `evidence`),
	FOREIGN KEY (`call_id`) REFERENCES `calls`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ai_call_hints_kind_idx` ON `ai_call_hints` (`kind`,`call_id`);