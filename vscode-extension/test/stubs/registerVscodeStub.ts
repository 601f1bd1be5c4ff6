/** Mocha `--require`: makes `import * as vscode from "vscode"` load the stub. */
import Module from "node:module";

import * as stub from "./vscodeStub";

const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
const originalLoad = loader._load;
loader._load = function load(request: string, parent: unknown, isMain: boolean): unknown {
  return request === "vscode" ? stub : originalLoad.call(this, request, parent, isMain);
};
