import pulumi
import pulumi_proxy as proxy

# Twenty orders of the plan dc-us-5, each renewed three days before it expires. Once ready, the proxies are checked
# through themselves: at least 90% must answer, and up to two failing members are replaced per `pulumi up`.
fleet = proxy.ProxyFleet("scrapers",
    plan_id="dc-us-5",
    orders=20,
    renew_before="3d",
    health_check=proxy.HealthCheckArgs(
        target="https://api.ipify.org?format=json",
        min_healthy="90%",
    ),
    replace_unhealthy=2)

pulumi.export("members", fleet.members)
pulumi.export("proxies", fleet.proxies)
# Secret, in the same order as `proxies`.
pulumi.export("credentials", fleet.credentials)
