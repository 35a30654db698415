"""The browser pages: incident list, incident page, upload, log viewer."""
