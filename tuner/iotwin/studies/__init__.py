"""Studies built from tuning campaigns: experiments, what-if, paper sensitivity."""
