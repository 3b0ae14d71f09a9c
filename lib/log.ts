import pino from "pino";

/**
 * Structured JSON logs. Secrets never reach them: credential-bearing fields are redacted
 * wherever they appear, and request logs carry only method, path, status, timing and ids.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "silent" : "info"),
  base: { service: "tollgate" },
  redact: {
    paths: [
      "authorization",
      "*.authorization",
      "headers.authorization",
      "password",
      "*.password",
      "api_key",
      "*.api_key",
      "token",
      "*.token",
      "client_secret",
      "*.client_secret",
      "access_token",
      "*.access_token",
      "refresh_token",
      "*.refresh_token",
    ],
    censor: "[redacted]",
  },
});
