CREATE TABLE `sla_alerts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`kind` text NOT NULL,
	`target` text NOT NULL,
	`due_at` integer NOT NULL,
	`counted` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sla_alerts_once_idx` ON `sla_alerts` (`ticket_id`,`kind`,`target`,`due_at`);--> statement-breakpoint
CREATE INDEX `sla_alerts_created_idx` ON `sla_alerts` (`created_at`);--> statement-breakpoint
CREATE TABLE `sla_policies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`label_id` integer NOT NULL,
	`priority` text DEFAULT '' NOT NULL,
	`first_response_minutes` integer,
	`next_response_minutes` integer,
	`resolution_minutes` integer,
	`warn_minutes` integer DEFAULT 15 NOT NULL,
	`pause_on_pending` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`label_id`) REFERENCES `labels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sla_policies_label_priority_idx` ON `sla_policies` (`label_id`,`priority`);--> statement-breakpoint
CREATE TABLE `sla_tickets` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`label_id` integer,
	`first_due_at` integer,
	`next_due_at` integer,
	`resolution_due_at` integer,
	`due_at` integer,
	`due_target` text,
	`warn_at` integer,
	`warn_minutes` integer DEFAULT 15 NOT NULL,
	`next_check_at` integer,
	`state` text DEFAULT 'none' NOT NULL,
	`outcome` text,
	`breached_at` integer,
	`seen_updated_at` integer NOT NULL,
	`computed_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sla_tickets_next_check_idx` ON `sla_tickets` (`next_check_at`);--> statement-breakpoint
CREATE INDEX `sla_tickets_state_idx` ON `sla_tickets` (`state`);