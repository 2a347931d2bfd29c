-- Headless Neovim (0.7+) test config: start `python -m prism_lsp` with the built-in LSP client,
-- open the suite given in $PRISM_SUITE, and write every diagnostic publication to $PRISM_OUT
-- (JSON) once a publication with runtime findings arrives (or the timeout passes).
local python = os.getenv('PRISM_PYTHON') or 'python3'
local suite = os.getenv('PRISM_SUITE')
local out = os.getenv('PRISM_OUT')
local timeout_ms = tonumber(os.getenv('PRISM_TIMEOUT_MS') or '60000')
local publications = {}
local done = false

local function finish(reason)
  if done then return end
  done = true
  local f = io.open(out, 'w')
  f:write(vim.fn.json_encode({ reason = reason, publications = publications }))
  f:close()
  vim.cmd('qall!')
end

local default_handler = vim.lsp.handlers['textDocument/publishDiagnostics']
local handlers = {
  ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
    table.insert(publications, result)
    pcall(default_handler, err, result, ctx, config)
    for _, d in ipairs(result.diagnostics or {}) do
      if d.code == 'rejects-valid' or d.code == 'misses-baseline' then
        vim.schedule(function() finish('runtime findings') end)
      end
    end
  end,
}

vim.cmd('edit ' .. vim.fn.fnameescape(suite))
local client_id = vim.lsp.start_client({
  name = 'prism',
  cmd = { python, '-m', 'prism_lsp' },
  root_dir = vim.fn.getcwd(),
  init_options = { debounceMs = 50 },
  handlers = handlers,
})
vim.lsp.buf_attach_client(0, client_id)
vim.defer_fn(function() finish('timeout') end, timeout_ms)
