from memworks.cli import main

raise SystemExit(main())
