/**
 * The slice of the `vscode` API the extension touches, recording calls so unit tests can
 * assert on UI effects. Loaded in place of `vscode` by registerVscodeStub.
 */
import { URL } from "url";

type Listener<T> = (event: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (listener: Listener<T>): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
  };
  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      listener(event);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Disposable {
  constructor(private readonly callback: () => unknown = () => undefined) {}
  dispose(): void {
    this.callback();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query: string,
  ) {}
  static from(parts: { scheme: string; path?: string; query?: string }): Uri {
    return new Uri(parts.scheme, parts.path ?? "", parts.query ?? "");
  }
  static parse(text: string): Uri {
    const url = new URL(text);
    return new Uri(url.protocol.replace(/:$/, ""), decodeURIComponent(url.pathname), url.search.replace(/^\?/, ""));
  }
  static file(path: string): Uri {
    return new Uri("file", path, "");
  }
  toString(): string {
    return `${this.scheme}://${this.path}${this.query ? `?${this.query}` : ""}`;
  }
}

export class TabInputText {
  constructor(readonly uri: Uri) {}
}

export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}

export class TabInputNotebook {
  constructor(
    readonly uri: Uri,
    readonly notebookType = "jupyter-notebook",
  ) {}
}

export class TabInputNotebookDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
    readonly notebookType = "jupyter-notebook",
  ) {}
}

export enum FileType {
  File = 1,
}
export enum FilePermission {
  Readonly = 1,
}
export enum FileChangeType {
  Changed = 1,
}
export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

export class FileSystemError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
  static FileNotFound(uri: Uri): FileSystemError {
    return new FileSystemError(`not found: ${uri.toString()}`, "FileNotFound");
  }
  static NoPermissions(uri: Uri): FileSystemError {
    return new FileSystemError(`no permissions: ${uri.toString()}`, "NoPermissions");
  }
}

export class LanguageModelTextPart {
  constructor(readonly value: string) {}
}
export class LanguageModelToolResult {
  constructor(readonly content: LanguageModelTextPart[]) {}
}

export interface FakeDocument {
  uri: Uri;
  isDirty: boolean;
  getText(): string;
  save(): Promise<boolean>;
}

export interface FakeNotebook {
  uri: Uri;
  notebookType: string;
  isDirty: boolean;
  save(): Promise<boolean>;
}

export interface FakeTab {
  input: unknown;
}

/** Everything the stubbed API recorded; reset between tests. */
export const recorded = {
  commands: [] as { id: string; args: unknown[] }[],
  messages: [] as { level: "info" | "warning" | "error"; text: string; items: unknown[] }[],
  closedTabs: [] as FakeTab[],
  tools: new Map<string, { invoke(options: unknown, token: unknown): Promise<LanguageModelToolResult> }>(),
  statusBar: { text: "", visible: false },
  /** Answers for showWarningMessage/showInformationMessage/showErrorMessage, in order. */
  messageAnswers: [] as (string | undefined)[],
  documents: [] as FakeDocument[],
  notebooks: [] as FakeNotebook[],
  shownNotebooks: [] as FakeNotebook[],
  tabs: [] as FakeTab[],
  config: {} as Record<string, unknown>,
};

export function resetRecorded(): void {
  recorded.commands = [];
  recorded.messages = [];
  recorded.closedTabs = [];
  recorded.tools = new Map();
  recorded.statusBar = { text: "", visible: false };
  recorded.messageAnswers = [];
  recorded.documents = [];
  recorded.notebooks = [];
  recorded.shownNotebooks = [];
  recorded.tabs = [];
  recorded.config = {};
}

function message(level: "info" | "warning" | "error") {
  return async (text: string, ...items: unknown[]): Promise<string | undefined> => {
    recorded.messages.push({ level, text, items });
    return recorded.messageAnswers.shift();
  };
}

export const window = {
  createStatusBarItem: () => ({
    name: "",
    command: "",
    tooltip: "",
    set text(value: string) {
      recorded.statusBar.text = value;
    },
    get text() {
      return recorded.statusBar.text;
    },
    show: () => (recorded.statusBar.visible = true),
    hide: () => (recorded.statusBar.visible = false),
    dispose: () => undefined,
  }),
  showInformationMessage: message("info"),
  showWarningMessage: message("warning"),
  showErrorMessage: message("error"),
  setStatusBarMessage: (text: string) => {
    recorded.messages.push({ level: "info", text, items: [] });
    return new Disposable();
  },
  showQuickPick: async () => undefined,
  onDidChangeWindowState: () => new Disposable(),
  showTextDocument: async () => undefined,
  showNotebookDocument: async (notebook: FakeNotebook) => {
    recorded.shownNotebooks.push(notebook);
  },
  get activeTextEditor() {
    return undefined;
  },
  tabGroups: {
    get activeTabGroup() {
      return { activeTab: recorded.tabs[0] };
    },
    get all() {
      return [{ tabs: recorded.tabs }];
    },
    close: async (tabs: FakeTab[]) => {
      recorded.closedTabs.push(...tabs);
      recorded.tabs = recorded.tabs.filter((tab) => !tabs.includes(tab));
      return true;
    },
  },
};

export const commands = {
  executeCommand: async (id: string, ...args: unknown[]) => {
    recorded.commands.push({ id, args });
    return undefined;
  },
  registerCommand: (id: string) => new Disposable(() => id),
};

export const workspace = {
  get textDocuments() {
    return recorded.documents;
  },
  get notebookDocuments() {
    return recorded.notebooks;
  },
  asRelativePath: (uri: Uri) => uri.path.replace(/^\//, ""),
  createFileSystemWatcher: () => {
    const none = () => new Disposable();
    return { onDidChange: none, onDidCreate: none, onDidDelete: none, dispose: () => undefined };
  },
  getConfiguration: () => ({ get: (key: string) => recorded.config[key] }),
};

export const lm = {
  registerTool: (name: string, tool: { invoke(options: unknown, token: unknown): Promise<LanguageModelToolResult> }) => {
    recorded.tools.set(name, tool);
    return new Disposable(() => recorded.tools.delete(name));
  },
};
