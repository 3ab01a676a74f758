"""What the tests share: projects and their state files, hook flows, payloads, state builders,
child processes and warm workers. Test modules import from here, never from each other."""
