ALTER TABLE `channel_accounts` ADD `paused_until` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `file_state` text;