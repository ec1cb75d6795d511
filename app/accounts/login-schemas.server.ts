// The sign-in and two-factor forms' schemas (server only: zod stays out of the pages' JavaScript).
import { z } from "zod";

export const loginSchema = z.object({
  username: z.string().trim().min(1, "login.usernameRequired"),
  password: z.string().min(1, "login.passwordRequired"),
  type: z.enum(["admin", "agent"]).catch("agent"),
});

export const codeSchema = z.object({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, "login.codeFormat"),
});

/**
 * Settings, two-factor sign-in: both ways ask for the password (a borrowed session cannot switch
 * it); turning it on also takes the secret shown and a code it makes.
 */
export const tfaDisableSchema = z.object({ password: z.string().min(1, "login.passwordRequired") });
export const tfaEnableSchema = z.object({
  secret: z.string().regex(/^[A-Z2-7]{16,64}$/, "settings.tfaInvalid"),
  code: z.string(),
  password: z.string().min(1, "login.passwordRequired"),
});
