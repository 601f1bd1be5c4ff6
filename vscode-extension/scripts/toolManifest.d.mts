export interface CommandSpec {
  readonly tool: string | null;
  readonly title: string | null;
  readonly description: string | null;
  readonly inputSchema: unknown;
}
export interface Spec {
  readonly COMMAND_SPECS: readonly CommandSpec[];
  readonly SERVER_OPTIONS: Readonly<Record<string, { readonly default: unknown; readonly minimum?: number }>>;
}
export function loadSpec(): Promise<Spec>;
export function manifestTools(commands: readonly CommandSpec[]): Record<string, unknown>[];
export function syncedManifest<T>(manifest: T, spec: Spec): T;
