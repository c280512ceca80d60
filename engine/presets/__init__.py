"""House-rule presets, shipped as TOML files a user can copy and edit."""
