"""Concurrency simulations: writer processes committing to one table, checked afterwards."""
