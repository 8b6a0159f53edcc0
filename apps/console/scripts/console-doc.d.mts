/** Types of console-doc.mjs (the generate script's module), for the drift test. */
export declare const docTarget: URL;
export declare function renderConsoleDoc(): string;
export declare function consoleDocShots(): string[];
