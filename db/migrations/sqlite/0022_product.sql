CREATE TABLE `product_tickets` (
	`product_id` integer NOT NULL,
	`ticket_id` integer NOT NULL,
	`linked_by` integer,
	`linked_at` integer NOT NULL,
	PRIMARY KEY(`product_id`, `ticket_id`),
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`linked_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `product_tickets_ticket_idx` ON `product_tickets` (`ticket_id`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`sku` text NOT NULL,
	`category` text DEFAULT '' NOT NULL,
	`price_minor` integer,
	`currency` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`image_key` text,
	`active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_sku_lower_idx` ON `products` (lower("sku"));--> statement-breakpoint
CREATE INDEX `products_category_idx` ON `products` (`category`,`name`);--> statement-breakpoint
CREATE INDEX `products_name_idx` ON `products` (`name`);--> statement-breakpoint
CREATE INDEX `products_image_idx` ON `products` (`image_key`);