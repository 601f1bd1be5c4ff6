export interface DescribedTool {
  name: string;
  command: string;
  description: string;
  mutating: boolean;
  inputSchema: Record<string, unknown>;
}
export function describeTools(command?: string): DescribedTool[];
export function manifestTools(tools: DescribedTool[]): Record<string, unknown>[];
