CREATE TABLE `request_keys` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`action` text NOT NULL,
	`result` text DEFAULT 'null' NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
CREATE INDEX `request_keys_created_idx` ON `request_keys` (`created_at`);