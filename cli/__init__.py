"""The ``dicke-daemonen`` console command."""
