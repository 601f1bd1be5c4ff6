-- A real headless Neovim 0.7 runs waymark-ls on a workspace; a terminal agent (the waymark CLI,
-- started as a job so Neovim keeps answering) changes a file. Neovim is asked through
-- workspace/applyEdit: the first time the "user" declines, the second time approves.
local root = os.getenv("WAYMARK_ROOT")
local runtime = os.getenv("WAYMARK_RUNTIME_DIR")
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

local approve = false
local asked = {}
local default_apply = vim.lsp.handlers["workspace/applyEdit"]
vim.lsp.handlers["workspace/applyEdit"] = function(err, result, ctx, config)
  local confirm = {}
  for _, annotation in pairs(result.edit.changeAnnotations or {}) do
    table.insert(confirm, annotation.needsConfirmation)
  end
  table.insert(asked, { label = result.label, needsConfirmation = confirm })
  if not approve then
    return { applied = false, failureReason = "the user declined" }
  end
  return default_apply(err, result, ctx, config)
end

local client_id = vim.lsp.start_client({
  cmd = { os.getenv("WAYMARK_PYTHON"), "-m", "waymark", "serve" },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
  init_options = { historyDir = os.getenv("WAYMARK_HISTORY"), sessionId = "neovim" },
})
if not client_id then
  fail("start_client failed")
end
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(20000, function() return client.initialized end, 50) then
  fail("server did not initialize")
end
if not vim.wait(20000, function() return #vim.fn.glob(runtime .. "/ls-*.json", false, true) > 0 end, 50) then
  fail("the server did not advertise the bridge")
end

vim.cmd("edit " .. root .. "/main.py")
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)

local function agent(args)
  local cmd = { os.getenv("WAYMARK_PYTHON"), "-m", "waymark" }
  vim.list_extend(cmd, args)
  vim.list_extend(cmd, { "--root", root, "--session", "agent", "--history-dir", os.getenv("WAYMARK_AGENT_HISTORY"), "--json" })
  local stdout, done = {}, false
  vim.fn.jobstart(cmd, {
    stdout_buffered = true,
    on_stdout = function(_, data) stdout = data end,
    on_exit = function() done = true end,
  })
  if not vim.wait(60000, function() return done end, 50) then
    fail("the agent did not finish: " .. table.concat(args, " "))
  end
  return vim.fn.json_decode(table.concat(stdout, "\n"))
end

local function disk()
  local f = assert(io.open(root .. "/main.py", "rb"))
  local data = f:read("*a")
  f:close()
  return data
end

record("read", agent({ "read", "main.py" }))
record("declined", agent({ "replace", "main.py", '"hello"', '"hello, agent"' }))
record("buffer_after_decline", vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
record("disk_after_decline", disk())
approve = true
record("applied", agent({ "replace", "main.py", '"hello"', '"hello, agent"' }))
record("buffer_after_apply", vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
record("disk_after_apply", disk())
record("asked", asked)

client.stop()
vim.wait(5000, function() return client.is_stopped() end, 50)
out:close()
vim.cmd("qall!")
