"""The Slack adapter: slack-bolt (AsyncApp) translating Slack events for the serving core."""
