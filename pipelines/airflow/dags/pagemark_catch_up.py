"""Catch-up of a pagemark index from a table's time buckets every 15 minutes, then commit (docs/catch-up.md).

The second schedule beside pagemark_rebuild: this DAG keeps the index current between nightly rebuilds by querying
only the buckets since its watermark (never a Scan); the nightly backfill picks up the deletes and edits that bucket
queries cannot see. Every setting is a DAG param; the first run needs `since` (the start of the backfill that built
the index), later runs start at the watermark stored beside the index's write-ahead log.
"""

from __future__ import annotations

import datetime as dt
import os

from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG, Param

PAGEMARK_JAR = os.environ.get("PAGEMARK_JAR", "/opt/pagemark/pagemark-pipelines-job.jar")

with DAG(
    dag_id="pagemark_catch_up",
    description="Catch a pagemark index up from the table's time buckets and commit; the nightly rebuild reconciles.",
    schedule=os.environ.get("PAGEMARK_CATCH_UP_SCHEDULE", "*/15 * * * *"),
    start_date=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc),
    catchup=False,
    max_active_runs=1,  # one catch-up at a time: each starts where the last one's watermark ends
    default_args={
        "retries": int(os.environ.get("PAGEMARK_RETRIES", "2")),
        "retry_delay": dt.timedelta(minutes=1),
    },
    params={
        "jar": Param(PAGEMARK_JAR, type="string", description="pagemark's shaded job jar"),
        "table": Param("comments", type="string", description="DynamoDB table"),
        "gsi": Param("byProduct", type="string", description="GSI whose pages are numbered"),
        "index": Param("/var/lib/pagemark/comments", type="string", description="index root directory"),
        "bucket_index": Param("byBucket", type="string", description="GSI whose partition key is the time bucket"),
        "bucket_minutes": Param(15, type="integer", minimum=1),
        "bucket_format": Param("yyyyMMddHHmm", type="string", description="java.time pattern of a bucket, UTC"),
        "overlap_minutes": Param(30, type="integer", minimum=0),
        "since": Param("", type="string", description="ISO-8601 instant for the first run; empty: the watermark"),
        "dynamo_endpoint": Param("", type="string", description="DynamoDB endpoint URL; empty for AWS"),
        "aws_region": Param("us-east-1", type="string"),
    },
    tags=["pagemark"],
) as dag:
    catch_up = BashOperator(
        task_id="catch_up",
        bash_command=(
            "java -cp {{ params.jar }} io.pagemark.pipelines.Main catch-up --commit"
            " --table={{ params.table }} --gsi={{ params.gsi }} --index={{ params.index }}"
            " --bucketIndex={{ params.bucket_index }} --bucketMinutes={{ params.bucket_minutes }}"
            " --bucketFormat={{ params.bucket_format }} --overlapMinutes={{ params.overlap_minutes }}"
            "{% if params.since %} --since={{ params.since }}{% endif %}"
            "{% if params.dynamo_endpoint %} --dynamoEndpoint={{ params.dynamo_endpoint }}{% endif %}"
            " --awsRegion={{ params.aws_region }}"
        ),
        execution_timeout=dt.timedelta(minutes=14),  # ends before the next run is due
    )
