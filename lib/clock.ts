/**
 * Where the money path reads the time that decides budget periods, credit expiry and alert
 * periods. Production uses the system clock; tests inject one they can move (`ApiDeps.clock`),
 * so a period rolls over without sleeping. Timestamps PostgreSQL sets itself (`created_at`
 * defaults) keep the database's clock.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock a test moves by hand. */
export class ManualClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
  set(at: Date | string): void {
    this.current = new Date(at);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
