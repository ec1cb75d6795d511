CREATE TABLE `calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`sip_call_id` text NOT NULL,
	`direction` text NOT NULL,
	`did` text DEFAULT '' NOT NULL,
	`from_number` text NOT NULL,
	`to_number` text NOT NULL,
	`agent_user_id` integer,
	`state` text DEFAULT 'ringing' NOT NULL,
	`started_at` integer NOT NULL,
	`answered_at` integer,
	`held_at` integer,
	`hold_ms` integer DEFAULT 0 NOT NULL,
	`ended_at` integer,
	`acw_ms` integer,
	`hangup_cause` text DEFAULT '' NOT NULL,
	`hangup_by` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `calls_sip_call_id_idx` ON `calls` (`sip_call_id`);--> statement-breakpoint
CREATE INDEX `calls_ticket_idx` ON `calls` (`ticket_id`);--> statement-breakpoint
CREATE INDEX `calls_state_idx` ON `calls` (`state`);