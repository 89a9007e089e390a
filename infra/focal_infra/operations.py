"""Alarms and the tenant's dashboard.

Alarms (no action unless -c alarmTopicArn=<SNS topic ARN>):
    fallback rate       fallback invocations / sensor invocations (every turn starts at sensor), > 10 %
    API 5xx             the API stage's 5XXError count
    failed executions   turn executions FAILED or TIMED_OUT (the fallback catches stage errors: any is a defect)
    throttles           Lambda throttles of the pipeline functions + Step Functions ExecutionThrottled
    OpenSearch          cluster status red, free storage low, index writes blocked

Dashboard `focal-<tenant>`: stage latencies (p50/p90 per stage function), execution paths and
violations and model calls and cost (the persist function's EMF metrics in namespace Focal/<tenant>,
handlers/_metrics.py), API status counts and latency.
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_sns as sns
from constructs import Construct

from focal_infra.built_stack import BuiltStack

PERIOD = Duration.minutes(5)
FALLBACK_RATE_PERCENT = 10
FREE_STORAGE_MB = 2048  # of the 10 GB data volume


def metrics_namespace(tenant: str) -> str:
    return f"Focal/{tenant}"


class Monitoring(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, stack: BuiltStack) -> None:
        super().__init__(scope, construct_id)
        tenant = stack.tenant
        pipeline = {**stack.stage_functions, "fallback": stack.fallback_function}
        machine = stack.state_machine
        self.alarms: dict[str, cw.Alarm] = {}

        turns = stack.stage_functions["sensor"].metric_invocations(period=PERIOD, statistic="Sum")
        fallbacks = stack.fallback_function.metric_invocations(period=PERIOD, statistic="Sum")
        self._alarm("FallbackRate", cw.MathExpression(
            expression="IF(turns > 0, 100 * fallbacks / turns, 0)", using_metrics={"turns": turns, "fallbacks": fallbacks},
            period=PERIOD, label="fallback %"),
            threshold=FALLBACK_RATE_PERCENT, evaluation_periods=3, datapoints_to_alarm=2,
            description=f"More than {FALLBACK_RATE_PERCENT} % of turns went to the fallback ({tenant})")
        self._alarm("Api5xx", stack.api.metric_server_error(period=PERIOD, statistic="Sum"), threshold=5,
                    description=f"The turn API answered 5xx ({tenant})")
        self._alarm("FailedExecutions", cw.MathExpression(
            expression="failed + timedout", period=PERIOD, label="failed or timed-out executions",
            using_metrics={"failed": machine.metric_failed(period=PERIOD, statistic="Sum"),
                           "timedout": machine.metric_timed_out(period=PERIOD, statistic="Sum")}),
            threshold=1, description=f"Turn executions failed or timed out: the fallback did not answer ({tenant})")
        throttles = {f"t{i}": fn.metric_throttles(period=PERIOD, statistic="Sum") for i, fn in enumerate(pipeline.values())}
        throttles["sfn"] = machine.metric_throttled(period=PERIOD, statistic="Sum")
        self._alarm("Throttles", cw.MathExpression(expression=" + ".join(throttles), using_metrics=throttles,
                                                   period=PERIOD, label="throttles"),
                    threshold=1, description=f"Lambda or Step Functions throttled turns ({tenant})")
        domain = stack.domain
        self._alarm("OpenSearchRed", domain.metric_cluster_status_red(period=Duration.minutes(1), statistic="Max"),
                    threshold=1, evaluation_periods=5, datapoints_to_alarm=3,
                    description=f"The rule index cluster is red ({tenant}): retrieval degrades to GLOBAL rules")
        self._alarm("OpenSearchWritesBlocked", domain.metric_cluster_index_writes_blocked(
            period=Duration.minutes(5), statistic="Max"), threshold=1,
            description=f"The rule index blocks writes ({tenant}): publishing fails")
        self._alarm("OpenSearchFreeStorage", domain.metric_free_storage_space(period=PERIOD, statistic="Min"),
                    threshold=FREE_STORAGE_MB, comparison=cw.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
                    description=f"The rule index has less than {FREE_STORAGE_MB} MB free ({tenant})")
        if stack.options.alarm_topic_arn:
            topic = sns.Topic.from_topic_arn(self, "AlarmTopic", stack.options.alarm_topic_arn)
            for alarm in self.alarms.values():
                alarm.add_alarm_action(cw_actions.SnsAction(topic))

        self.dashboard = cw.Dashboard(self, "Dashboard", dashboard_name=f"focal-{tenant}",
                                      default_interval=Duration.hours(3))
        namespace = metrics_namespace(tenant)
        schema = f'SCHEMA("{namespace}", execution_path, intent_label, service)'

        def insights(metric: str, label: str, stat: str = "SUM") -> cw.MathExpression:
            return cw.MathExpression(
                expression=f"SELECT {stat}({metric}) FROM {schema} GROUP BY execution_path",
                using_metrics={}, label=label, period=PERIOD)

        self.dashboard.add_widgets(
            cw.GraphWidget(title="Stage latency p90 (ms)", width=12, left=[
                fn.metric_duration(period=PERIOD, statistic="p90", label=name) for name, fn in pipeline.items()]),
            cw.GraphWidget(title="Stage latency p50 (ms)", width=12, left=[
                fn.metric_duration(period=PERIOD, statistic="p50", label=name) for name, fn in pipeline.items()]),
        )
        self.dashboard.add_widgets(
            cw.GraphWidget(title="Turns by execution path", width=8, left=[insights("Turns", "turns")]),
            cw.GraphWidget(title="Violations found by enforcement", width=8, left=[insights("Violations", "violations")]),
            cw.GraphWidget(title="Model calls and cost (USD)", width=8,
                           left=[insights("ModelCalls", "model calls")],
                           right=[insights("ModelCostUSD", "cost USD")]),
        )
        self.dashboard.add_widgets(
            cw.GraphWidget(title="Fallback rate (%) and throttles", width=12,
                           left=[self.alarms["FallbackRate"].metric], right=[self.alarms["Throttles"].metric]),
            cw.GraphWidget(title="API", width=12, left=[
                stack.api.metric_count(period=PERIOD, statistic="Sum"),
                stack.api.metric_client_error(period=PERIOD, statistic="Sum"),
                stack.api.metric_server_error(period=PERIOD, statistic="Sum")],
                right=[stack.api.metric_latency(period=PERIOD, statistic="p90")]),
        )
        self.dashboard.add_widgets(cw.AlarmStatusWidget(title="Alarms", width=24, alarms=list(self.alarms.values())))

    def _alarm(self, name: str, metric: cw.IMetric, *, threshold: float, description: str, evaluation_periods: int = 1,
               datapoints_to_alarm: int | None = None,
               comparison: cw.ComparisonOperator = cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD) -> None:
        self.alarms[name] = cw.Alarm(
            self, name, metric=metric, threshold=threshold, evaluation_periods=evaluation_periods,
            datapoints_to_alarm=datapoints_to_alarm, comparison_operator=comparison, alarm_description=description,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING)
