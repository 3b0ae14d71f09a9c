export declare function buildIsStale(root?: string): boolean;
