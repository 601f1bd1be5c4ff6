export interface DescribedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}
export function describeTools(command?: string): DescribedTool[];
export function manifestTools(tools: DescribedTool[]): Record<string, unknown>[];
