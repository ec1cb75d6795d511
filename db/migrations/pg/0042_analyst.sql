CREATE TABLE "ai_recommendation_feedback" (
	"id" serial PRIMARY KEY NOT NULL,
	"ticket_id" integer NOT NULL,
	"message_id" integer NOT NULL,
	"kind" text NOT NULL,
	"draft" text NOT NULL,
	"outcome" text DEFAULT '' NOT NULL,
	"user_id" integer,
	"reply_message_id" integer,
	"offered_at" bigint NOT NULL,
	"decided_at" bigint
);
--> statement-breakpoint
CREATE TABLE "ai_ticket_labels" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"emotion" text DEFAULT '' NOT NULL,
	"classification" text DEFAULT '' NOT NULL,
	"predicted_emotion" text DEFAULT '' NOT NULL,
	"predicted_classification" text DEFAULT '' NOT NULL,
	"user_id" integer,
	"labelled_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trade_alert_hits" (
	"rule_id" integer NOT NULL,
	"message_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "trade_alert_hits_rule_id_message_id_pk" PRIMARY KEY("rule_id","message_id")
);
--> statement-breakpoint
CREATE TABLE "trade_alert_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"keyword" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_by" integer,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ai_recommendation_feedback" ADD CONSTRAINT "ai_recommendation_feedback_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_recommendation_feedback" ADD CONSTRAINT "ai_recommendation_feedback_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_recommendation_feedback" ADD CONSTRAINT "ai_recommendation_feedback_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_ticket_labels" ADD CONSTRAINT "ai_ticket_labels_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_ticket_labels" ADD CONSTRAINT "ai_ticket_labels_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_alert_hits" ADD CONSTRAINT "trade_alert_hits_rule_id_trade_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."trade_alert_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_alert_hits" ADD CONSTRAINT "trade_alert_hits_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_alert_hits" ADD CONSTRAINT "trade_alert_hits_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trade_alert_rules" ADD CONSTRAINT "trade_alert_rules_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ai_rec_feedback_message_kind_idx" ON "ai_recommendation_feedback" USING btree ("message_id","kind");--> statement-breakpoint
CREATE INDEX "ai_rec_feedback_ticket_idx" ON "ai_recommendation_feedback" USING btree ("ticket_id","outcome");--> statement-breakpoint
CREATE INDEX "ai_rec_feedback_decided_idx" ON "ai_recommendation_feedback" USING btree ("decided_at");--> statement-breakpoint
CREATE INDEX "ai_ticket_labels_at_idx" ON "ai_ticket_labels" USING btree ("labelled_at");--> statement-breakpoint
CREATE INDEX "trade_alert_hits_ticket_idx" ON "trade_alert_hits" USING btree ("ticket_id");