"""The Spark engine: sharded, resumable campaigns of both kinds and the one place a SparkSession is made.

- `diff` (driver), `diff_shards` (what a task runs), `diff_rows` (one row), `diff_summary` (aggregation):
  differential campaigns over seeded generated instances, one Parquet file per shard.
- `fuzz`: atheris rounds sharded over Spark tasks, the corpus merged and findings triaged between rounds.
- `session`: the one place a SparkSession is made, and `--master` checks; `standalone`: a one-machine
  standalone cluster from pyspark's own launcher (the cluster test and the campaign benchmark use it).

It sits between `ci` and `verify`/`fuzz` (it uses the fuzz engine's jobs and the findings path), and is the only package
that imports pyspark, always lazily: `assigncheck assign` never starts a JVM.
"""
