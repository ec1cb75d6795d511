CREATE TABLE `call_transcripts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`call_id` integer NOT NULL,
	`source` text NOT NULL,
	`transcription` text NOT NULL,
	`translated_transcription` text DEFAULT '' NOT NULL,
	`interim` integer DEFAULT false NOT NULL,
	`offset_ms` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`call_id`) REFERENCES `calls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `call_transcripts_call_idx` ON `call_transcripts` (`call_id`,`offset_ms`);--> statement-breakpoint
ALTER TABLE `calls` ADD `voicemail` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `calls` ADD `recording_key` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `recording_type` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `recording_bytes` integer;--> statement-breakpoint
ALTER TABLE `calls` ADD `recording_ms` integer;