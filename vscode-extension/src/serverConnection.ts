/**
 * Owns the language client: launch from settings, restart, and one `execute` that turns every
 * way a call can go wrong (server missing, crashed, JSON-RPC error) into the contract's
 * `{ok: false}` shape, so callers — UI, tools, API — handle a single result type.
 */
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
} from "vscode-languageclient/node";

import { answerReview, REVIEW_REQUEST, ReviewCapability, type Reviewer, type ReviewParams } from "./approval/bridgeReview";
import { applyThenSave } from "./approval/saveAppliedEdits";
import { findBundledLaunch, interpreterCandidates } from "./bundledServer";
import { missingServerMessage, resolveExecutable, startFailureMessage } from "./launchCheck";
import { type CommandId, DID_REWIND_NOTIFICATION, type DidRewindEvent, failure, type Result } from "./protocol";
import { RestartPolicy } from "./restartPolicy";
import { initializationOptions, readSettings, serverEnvironment, serverLaunch } from "./settings";

export class ServerConnection implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private startError: string | undefined;
  private readonly didRewind = new vscode.EventEmitter<DidRewindEvent>();
  readonly onDidRewind = this.didRewind.event;
  /** Shows a terminal agent's proposal (set once the approval UI exists). */
  reviewer: Reviewer | undefined;

  constructor(
    readonly output: vscode.LogOutputChannel,
    private readonly sessionId: string,
    private readonly extensionPath: string,
  ) {}

  /** Whether the server runs now, or is being started (asking this never starts it). */
  get status(): "running" | "starting" | "stopped" {
    return this.client?.state === State.Running ? "running" : this.starting ? "starting" : "stopped";
  }

  /** Starts the server once; concurrent callers share the attempt. */
  ensureStarted(): Promise<LanguageClient | undefined> {
    if (this.client?.state === State.Running) {
      return Promise.resolve(this.client);
    }
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.ensureStarted();
  }

  async execute<T = Record<string, unknown>>(command: CommandId, params: object = {}): Promise<Result<T>> {
    const client = await this.ensureStarted();
    if (!client) {
      return failure("server_unavailable", this.startError ?? "The Waymark language server is not running.");
    }
    try {
      const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [params] });
      if (typeof result !== "object" || result === null || typeof (result as { ok?: unknown }).ok !== "boolean") {
        return failure("invalid_response", `The server answered ${command} without an "ok" field.`, { result });
      }
      return result as Result<T>;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.output.error(`${command} failed: ${message}`);
      return failure("request_failed", `${command} failed: ${message}`);
    }
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.didRewind.dispose();
  }

  private async start(): Promise<LanguageClient | undefined> {
    const started = Date.now(); // includes finding a Python for the bundled server
    const settings = readSettings(vscode.workspace.getConfiguration("waymark"));
    this.startError = undefined;
    let launch = serverLaunch(settings);
    if (!launch) {
      const found = await findBundledLaunch(this.extensionPath, await interpreterCandidates());
      if ("error" in found) {
        this.startError = found.error;
        this.reportStartError(this.startError);
        return undefined;
      }
      launch = found.launch;
    } else if (!resolveExecutable(launch.command, process.env.PATH)) {
      this.startError = missingServerMessage(launch, Boolean(settings.pythonPath));
      this.reportStartError(this.startError);
      return undefined;
    }
    const env = serverEnvironment(settings);
    const serverOptions: ServerOptions = { command: launch.command, args: launch.args, ...(env ? { options: { env } } : {}) };
    const policy = new RestartPolicy();
    const clientOptions: LanguageClientOptions = {
      // Every file: the server tracks open buffers' versions for its staleness guard.
      documentSelector: [{ scheme: "file" }],
      outputChannel: this.output,
      initializationOptions: initializationOptions(settings, this.sessionId, vscode.workspace.getConfiguration("files").get("encoding")),
      middleware: {
        workspace: {
          handleApplyEdit: (params, next) =>
            applyThenSave(
              params,
              (p) => next(p, new vscode.CancellationTokenSource().token),
              () => vscode.workspace.textDocuments,
              (uri) => vscode.Uri.parse(uri).toString(),
            ),
        },
      },
      // A server that fails to start is reported once by start(), with its fix, not retried.
      initializationFailedHandler: () => false,
      errorHandler: {
        error: (_error, _message, count) => ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown }),
        closed: () => {
          const decision = policy.onClosed();
          if (decision.restart) {
            return { action: CloseAction.Restart, handled: true };
          }
          if (decision.message) {
            this.reportStartError(decision.message);
          }
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    const client = new LanguageClient("waymark", "Waymark", serverOptions, clientOptions);
    client.onNotification(DID_REWIND_NOTIFICATION, (event: DidRewindEvent) => this.didRewind.fire(event));
    client.registerFeature(new ReviewCapability());
    client.onRequest(REVIEW_REQUEST, (params: ReviewParams) => answerReview(params, this.reviewer));
    try {
      await client.start();
    } catch (error) {
      this.startError = startFailureMessage(launch, error);
      this.reportStartError(this.startError);
      await client.dispose().catch(() => undefined);
      return undefined;
    }
    policy.markRunning();
    this.output.info(`server started in ${Date.now() - started} ms: ${[launch.command, ...launch.args].join(" ")}`);
    this.client = client;
    return client;
  }

  private async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client) {
      await client.dispose().catch((error: unknown) => this.output.warn(`stopping the server: ${String(error)}`));
    }
  }

  private reportStartError(message: string): void {
    this.output.error(message);
    void vscode.window.showErrorMessage(message, "Open Settings", "Show Log").then((choice) => {
      if (choice === "Open Settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", "waymark.server");
      } else if (choice === "Show Log") {
        this.output.show();
      }
    });
  }
}
