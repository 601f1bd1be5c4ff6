/** A terminal agent's MCP client for the e2e runs: newline-delimited JSON-RPC on a real `waymark mcp`'s stdio. */
import type { ChildProcess } from "node:child_process";

export interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
}

export class Agent {
  private nextId = 1;
  private buffer = "";
  private readonly waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();

  constructor(readonly process: ChildProcess) {
    process.stdout?.setEncoding("utf8");
    process.stdout?.on("data", (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf("\n")) >= 0) {
        const line = this.buffer.slice(0, newline).trim();
        this.buffer = this.buffer.slice(newline + 1);
        if (line) {
          const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
          if (typeof message.id === "number") {
            this.waiting.get(message.id)?.(message);
            this.waiting.delete(message.id);
          }
        }
      }
    });
  }

  async request(method: string, params: object): Promise<unknown> {
    const id = this.nextId++;
    const answer = new Promise<{ result?: unknown; error?: unknown }>((resolve) => this.waiting.set(id, resolve));
    this.process.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    const message = await answer;
    if (message.error !== undefined) {
      throw new Error(`${method}: ${JSON.stringify(message.error)}`);
    }
    return message.result;
  }

  async initialize(): Promise<void> {
    await this.request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e-agent", version: "1" } });
    this.process.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  }

  async tool(name: string, args: object): Promise<ToolResult> {
    return (await this.request("tools/call", { name, arguments: args })) as ToolResult;
  }
}
