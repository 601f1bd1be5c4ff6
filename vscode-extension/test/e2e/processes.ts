/**
 * Start and stop child processes by PID. code-server leaves a file-watcher child behind when
 * its parent dies, so stopping walks the process tree from /proc and kills every PID found.
 */
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      // The command name may contain spaces or parentheses; fields after the last ")" are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process exited while we were reading.
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM the process and all its descendants by PID, then SIGKILL what is left. */
export async function killTree(root: number): Promise<number[]> {
  const pids = [root, ...descendants(root)];
  for (const pid of pids) {
    signal(pid, "SIGTERM");
  }
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && pids.some(alive)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const pid of pids.filter(alive)) {
    signal(pid, "SIGKILL");
  }
  return pids.filter(alive);
}

export function start(command: string, args: string[], options: SpawnOptions, log: (line: string) => void): ChildProcess {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.on("data", (data: Buffer) => log(data.toString()));
  child.stderr?.on("data", (data: Buffer) => log(data.toString()));
  return child;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}
