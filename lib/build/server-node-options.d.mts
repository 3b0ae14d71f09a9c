export function serverNodeOptions(root?: string): string[];
