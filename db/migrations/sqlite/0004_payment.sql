CREATE TABLE `invoices` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`number` text NOT NULL,
	`payment_id` integer NOT NULL,
	`billing_name` text NOT NULL,
	`billing_email` text NOT NULL,
	`period_start` integer NOT NULL,
	`period_end` integer NOT NULL,
	`issued_at` integer NOT NULL,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_number_idx` ON `invoices` (`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_payment_idx` ON `invoices` (`payment_id`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ref` text NOT NULL,
	`user_id` integer NOT NULL,
	`plan` integer NOT NULL,
	`quantity` integer NOT NULL,
	`currency` text NOT NULL,
	`unit_minor` integer NOT NULL,
	`amount_minor` integer NOT NULL,
	`tax_bp` integer NOT NULL,
	`tax_minor` integer NOT NULL,
	`total_minor` integer NOT NULL,
	`status` text DEFAULT 'PENDING' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`provider` text NOT NULL,
	`provider_ref` text,
	`checkout_url` text,
	`idempotency_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`settled_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_ref_idx` ON `payments` (`ref`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_idempotency_idx` ON `payments` (`user_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `payments_provider_ref_idx` ON `payments` (`provider`,`provider_ref`);--> statement-breakpoint
CREATE INDEX `payments_created_idx` ON `payments` (`created_at`);