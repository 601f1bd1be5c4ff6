-- Drives waymark-ls from a real headless Neovim 0.7 (vim.lsp.start_client API).
-- Inputs from the environment; every step's result is appended to $WAYMARK_OUT as JSON.
local root = os.getenv("WAYMARK_ROOT")
local out = assert(io.open(os.getenv("WAYMARK_OUT"), "w"))

local function record(step, value)
  out:write(vim.fn.json_encode({ step = step, value = value }), "\n")
  out:flush()
end

local function fail(message)
  record("error", message)
  out:close()
  vim.cmd("qall!")
end

local client_id = vim.lsp.start_client({
  cmd = { os.getenv("WAYMARK_PYTHON"), "-m", "waymark", "serve" },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
  init_options = {
    historyDir = os.getenv("WAYMARK_HISTORY"),
    sessionId = "neovim",
    approval = "editor",
  },
})
if not client_id then
  fail("start_client failed")
end
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(20000, function() return client.initialized end, 50) then
  fail("server did not initialize")
end

vim.cmd("edit " .. root .. "/main.py")
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)

local function call(command, params)
  local response, err = client.request_sync(
    "workspace/executeCommand", { command = command, arguments = { params } }, 20000, bufnr
  )
  if not response then
    fail(command .. ": " .. tostring(err))
  end
  if response.err then
    fail(command .. ": " .. vim.inspect(response.err))
  end
  return response.result
end

record("snapshot", call("waymark.snapshot", { promptId = "t1", label = "before the edit" }))
local read = call("waymark.read", { path = "main.py", hashes = true })
record("read", read)

local target
for _, line in ipairs(read.lines) do
  if line.text:find("greeting =", 1, true) then
    target = line.hash
  end
end
record("edit", call("waymark.edit", {
  path = "main.py",
  operations = { { op = "replace_line", hash = target, content = 'greeting = "hello, neovim"' } },
}))
record("buffer_after_edit", vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
-- Neovim applied the edit to the buffer; Waymark saved the approved bytes to disk. Reload
-- the buffer from disk (same text) so it is no longer marked modified, as docs/editors.md
-- recommends: a write would ask "file changed since reading" instead.
vim.cmd("autocmd FileChangedShell * let v:fcs_choice = 'reload'")
vim.cmd("checktime")
record("modified_after_reload", vim.bo[bufnr].modified)
local saved = assert(io.open(root .. "/main.py", "rb"))
record("disk_after_edit", saved:read("*a"))
saved:close()

record("rewind", call("waymark.rewind", { promptId = "t1" }))
vim.cmd("checktime")
record("buffer_after_rewind", vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))

client.stop()
vim.wait(5000, function() return client.is_stopped() end, 50)
out:close()
vim.cmd("qall!")
