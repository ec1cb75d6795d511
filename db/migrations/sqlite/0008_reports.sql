CREATE TABLE `report_facts` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`channel` text NOT NULL,
	`status` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`first_response_at` integer,
	`resolved_at` integer,
	`sla_minutes` integer,
	`rating` integer,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `report_facts_range_idx` ON `report_facts` (`created_at`,`kind`,`channel`,`status`,`sla_minutes`,`first_response_at`,`resolved_at`,`rating`);--> statement-breakpoint
CREATE INDEX `report_facts_kind_updated_idx` ON `report_facts` (`kind`,`updated_at`,`ticket_id`);--> statement-breakpoint
CREATE INDEX `report_facts_kind_status_created_idx` ON `report_facts` (`kind`,`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `report_rollup` (
	`dim` text NOT NULL,
	`kind` text NOT NULL,
	`at` integer NOT NULL,
	`key` text NOT NULL,
	`n` integer NOT NULL,
	`sum_ms` integer NOT NULL,
	`n_ms` integer NOT NULL,
	PRIMARY KEY(`dim`, `kind`, `at`, `key`)
);
