"""What several test folders share: synthetic platforms and workloads, program paths,
and checks of the bytes a program wrote."""
