"""Scheduled rebuild of a pagemark index: backfill (Beam, DirectRunner or Flink), then verify, then gc.

Every setting is a DAG param, so one file serves every table; trigger with --conf to override them. The job jar is
pagemark's shaded jar (`bin/pagemark jar` prints its path); its manifest names the backfill main class and the
--add-opens flags Java 17 needs for Flink, so the Beam operator runs it with `java -jar`.
"""

from __future__ import annotations

import datetime as dt
import os

from airflow.providers.apache.beam.operators.beam import BeamRunJavaPipelineOperator
from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG, Param

PAGEMARK_JAR = os.environ.get("PAGEMARK_JAR", "/opt/pagemark/pagemark-pipelines-job.jar")

with DAG(
    dag_id="pagemark_rebuild",
    description="Rebuild a pagemark index of a DynamoDB table, verify it against DynamoDB, remove old builds.",
    schedule=os.environ.get("PAGEMARK_SCHEDULE", "@daily"),
    start_date=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc),
    catchup=False,
    max_active_runs=1,  # one rebuild at a time: builds of one index must not race for CURRENT
    default_args={
        "retries": int(os.environ.get("PAGEMARK_RETRIES", "2")),
        "retry_delay": dt.timedelta(minutes=float(os.environ.get("PAGEMARK_RETRY_DELAY_MINUTES", "5"))),
        "retry_exponential_backoff": True,
    },
    params={
        "jar": Param(PAGEMARK_JAR, type="string", description="pagemark's shaded job jar"),
        "table": Param("comments", type="string", description="DynamoDB table"),
        "gsi": Param("byProduct", type="string", description="GSI whose pages are numbered"),
        "index": Param("/var/lib/pagemark/comments", type="string", description="index root directory"),
        "runner": Param("DirectRunner", enum=["DirectRunner", "FlinkRunner"]),
        "flink_master": Param("[local]", type="string", description="[local] or HOST:PORT of a session cluster"),
        "dynamo_endpoint": Param("", type="string", description="DynamoDB endpoint URL; empty for AWS"),
        "aws_region": Param("us-east-1", type="string"),
        "segments": Param(8, type="integer", minimum=1),
        "keep_builds": Param(3, type="integer", minimum=1),
        "gc_grace_minutes": Param(60, type="integer", minimum=0),
        "verify_tolerance": Param("0.0", type="string", description="fraction of groups allowed to disagree"),
        "verify_max_groups": Param(1000, type="integer", minimum=1),
    },
    tags=["pagemark"],
) as dag:
    backfill = BeamRunJavaPipelineOperator(
        task_id="backfill",
        jar="{{ params.jar }}",
        runner="{{ params.runner }}",
        pipeline_options={
            "table": "{{ params.table }}",
            "gsi": "{{ params.gsi }}",
            "output": "{{ params.index }}",
            "dynamoEndpoint": "{{ params.dynamo_endpoint }}",
            "awsRegion": "{{ params.aws_region }}",
            "segments": "{{ params.segments }}",
            "keepBuilds": "{{ params.keep_builds }}",
            "flinkMaster": "{{ params.flink_master }}",
            "progressSeconds": "30",
        },
        execution_timeout=dt.timedelta(hours=6),
    )

    pagemark = "java -cp {{ params.jar }} io.pagemark.pipelines.Main"

    verify = BashOperator(
        task_id="verify",
        bash_command=(
            pagemark + " verify --table={{ params.table }} --gsi={{ params.gsi }} --index={{ params.index }}"
            " --dynamoEndpoint={{ params.dynamo_endpoint }} --awsRegion={{ params.aws_region }}"
            " --tolerance={{ params.verify_tolerance }} --maxGroups={{ params.verify_max_groups }}"
        ),
        execution_timeout=dt.timedelta(hours=1),
    )

    gc = BashOperator(
        task_id="gc",
        bash_command=(
            pagemark + " gc --index={{ params.index }} --keep={{ params.keep_builds }}"
            " --graceMinutes={{ params.gc_grace_minutes }}"
        ),
        execution_timeout=dt.timedelta(minutes=30),
    )

    backfill >> verify >> gc
