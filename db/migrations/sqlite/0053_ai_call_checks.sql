CREATE TABLE `ai_call_checks` (
	`call_id` integer PRIMARY KEY NOT NULL,
	`checked_at` integer NOT NULL,
	FOREIGN KEY (`call_id`) REFERENCES `calls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- calls checked before this table: those with hints, and those whose check job finished
INSERT INTO `ai_call_checks` (`call_id`, `checked_at`) SELECT `call_id`, max(`created_at`) FROM `ai_call_hints` GROUP BY `call_id`;--> statement-breakpoint
INSERT OR IGNORE INTO `ai_call_checks` (`call_id`, `checked_at`)
  SELECT `calls`.`id`, max(coalesce(`jobs`.`finished_at`, `jobs`.`created_at`)) FROM `jobs`
  JOIN `calls` ON `calls`.`id` = CAST(substr(`jobs`.`key`, 13, instr(substr(`jobs`.`key`, 13), ':') - 1) AS INTEGER)
  WHERE `jobs`.`kind` = 'ai.callScam' AND `jobs`.`state` = 'done' GROUP BY `calls`.`id`;
