// Environment shared by every test file: a fixed public URL (token issuer/audience), quiet logs.
process.env.PUBLIC_URL ??= "http://tollgate.test";
process.env.LOG_LEVEL ??= "silent";
process.env.SEED_DEMO ??= "false";
