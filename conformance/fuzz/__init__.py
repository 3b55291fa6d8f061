"""Parser fuzzing: mutated seed files fed to every decoder of the kit."""
