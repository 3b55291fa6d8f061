"""paimon-kit's user command line: ``paimon-kit read / inspect / validate / alter`` and the
procedures (tags, branches, rollback, compaction, expiration, orphan files); ``paimon-kit
conformance`` is dispatched lazily to the test kit (:mod:`conformance.conformance_cli`)."""
