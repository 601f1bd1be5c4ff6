/**
 * The hunks of a proposal against the file it changes, and undoing one of them. Pure, so the
 * per-hunk review is unit-tested without VS Code. Lines keep their terminators, so rejecting a
 * hunk restores the original bytes of those lines exactly (CRLF included).
 */

export interface Hunk {
  /** 0-based, end exclusive, in the original. */
  originalStart: number;
  originalEnd: number;
  /** 0-based, end exclusive, in the proposal. */
  proposalStart: number;
  proposalEnd: number;
}

/** Past this many cells the middle is one hunk: per-hunk review stays instant on big files. */
const MAX_CELLS = 4_000_000;

export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Blocks of changed lines, each a separate hunk (adjacent changes form one block). */
export function diffHunks(original: string, proposal: string): Hunk[] {
  const a = splitLines(original);
  const b = splitLines(proposal);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) {
    head++;
  }
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) {
    tail++;
  }
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 && m === 0) {
    return [];
  }
  if (n === 0 || m === 0 || n * m > MAX_CELLS) {
    return [{ originalStart: head, originalEnd: head + n, proposalStart: head, proposalEnd: head + m }];
  }
  // Longest common subsequence of the middle, then walk it to collect the changed blocks.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[head + i] === b[head + j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  let open: Hunk | undefined;
  const close = (): void => {
    if (open) {
      open.originalEnd = head + i;
      open.proposalEnd = head + j;
      hunks.push(open);
      open = undefined;
    }
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] === b[head + j]) {
      close();
      i++;
      j++;
      continue;
    }
    open ??= { originalStart: head + i, originalEnd: 0, proposalStart: head + j, proposalEnd: 0 };
    if (j < m && (i >= n || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j])) {
      j++;
    } else {
      i++;
    }
  }
  close();
  return hunks;
}

/** The proposal with one hunk put back as the original had it; the other hunks stay. */
export function rejectHunk(original: string, proposal: string, hunk: Hunk): string {
  const a = splitLines(original);
  const b = splitLines(proposal);
  return [...b.slice(0, hunk.proposalStart), ...a.slice(hunk.originalStart, hunk.originalEnd), ...b.slice(hunk.proposalEnd)].join("");
}
