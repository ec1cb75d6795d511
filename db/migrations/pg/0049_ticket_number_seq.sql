-- Ticket numbers on PostgreSQL come from a sequence: nextval never waits for another transaction,
-- where max(ticket_number) + 1 made creators at once collide on the unique index (or, locked, queue
-- holding their connections). It starts after the numbers already given.
CREATE SEQUENCE IF NOT EXISTS "ticket_number_seq";
--> statement-breakpoint
SELECT setval('ticket_number_seq', greatest(100000, coalesce((SELECT max("ticket_number") FROM "tickets"), 0)));
