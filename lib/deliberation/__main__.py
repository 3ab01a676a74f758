from deliberation.cli import main

raise SystemExit(main())
