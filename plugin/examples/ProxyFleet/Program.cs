using System.Collections.Generic;
using Pulumi;
using Proxy = PulumiProxy.Proxy;

return await Deployment.RunAsync(() =>
{
    // Twenty orders of the plan dc-us-5, each renewed three days before it expires. Once ready, the proxies are checked
    // through themselves: at least 90% must answer, and up to two failing members are replaced per `pulumi up`.
    var fleet = new Proxy.ProxyFleet("scrapers", new()
    {
        PlanId = "dc-us-5",
        Orders = 20,
        RenewBefore = "3d",
        HealthCheck = new Proxy.Inputs.HealthCheckArgs
        {
            Target = "https://api.ipify.org?format=json",
            MinHealthy = "90%",
        },
        ReplaceUnhealthy = 2,
    });

    return new Dictionary<string, object?>
    {
        ["members"] = fleet.Members,
        ["proxies"] = fleet.Proxies,
        // Secret, in the same order as `proxies`.
        ["credentials"] = fleet.Credentials,
    };
});
