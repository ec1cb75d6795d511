ALTER TABLE `ai_ticket_analysis` ADD `energy` integer;--> statement-breakpoint
ALTER TABLE `ai_ticket_analysis` ADD `pace` integer;