CREATE TABLE `kanban_cards` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`column_id` integer NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`moved_by` integer,
	`moved_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`column_id`) REFERENCES `kanban_columns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`moved_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `kanban_cards_column_idx` ON `kanban_cards` (`column_id`);--> statement-breakpoint
CREATE TABLE `kanban_columns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kanban_columns_name_idx` ON `kanban_columns` (lower("name"));--> statement-breakpoint
CREATE INDEX `kanban_columns_position_idx` ON `kanban_columns` (`position`,`id`);