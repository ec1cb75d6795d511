ALTER TABLE `jobs` ADD `lane` text;--> statement-breakpoint
CREATE INDEX `jobs_lane_idx` ON `jobs` (`lane`,`state`);--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_lane_running_idx` ON `jobs` (`lane`) WHERE "jobs"."state" = 'running';