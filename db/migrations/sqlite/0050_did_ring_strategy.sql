ALTER TABLE `call_dids` ADD `ring_strategy` text DEFAULT 'ring_all' NOT NULL;--> statement-breakpoint
ALTER TABLE `call_dids` ADD `round_robin_last` text DEFAULT '' NOT NULL;