/** The phases a Call's time is split into (Server-Timing, the call duration histogram). */
export type CallPhase = "validate" | "reserve" | "provider" | "shape" | "settle";
