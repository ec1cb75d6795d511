CREATE TABLE `contact_field_values` (
	`contact_id` integer NOT NULL,
	`field_id` integer NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`contact_id`, `field_id`),
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`field_id`) REFERENCES `contact_fields`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `contact_fields` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`label` text NOT NULL,
	`kind` text NOT NULL,
	`options` text DEFAULT '' NOT NULL,
	`required` integer DEFAULT false NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `case_types_name_idx`;--> statement-breakpoint
ALTER TABLE `case_types` ADD `name_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- hand-written (issue 19, case-type names): existing types get their key as the old index compared them, lower(name); the model recomputes NFKC + Unicode lower case for every new or renamed type
UPDATE `case_types` SET `name_key` = lower(`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `case_types_name_key_idx` ON `case_types` (`name_key`);