package main

import (
	"github.com/pulumi-proxy/pulumi-proxy/sdk/go/proxy"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Twenty orders of the plan dc-us-5, each renewed three days before it expires. Once ready, the proxies are
		// checked through themselves: at least 90% must answer, and up to two failing members are replaced per `pulumi up`.
		fleet, err := proxy.NewProxyFleet(ctx, "scrapers", &proxy.ProxyFleetArgs{
			PlanId:      pulumi.String("dc-us-5"),
			Orders:      pulumi.Int(20),
			RenewBefore: pulumi.String("3d"),
			HealthCheck: &proxy.HealthCheckArgs{
				Target:     pulumi.String("https://api.ipify.org?format=json"),
				MinHealthy: pulumi.String("90%"),
			},
			ReplaceUnhealthy: pulumi.Int(2),
		})
		if err != nil {
			return err
		}
		ctx.Export("members", fleet.Members)
		ctx.Export("proxies", fleet.Proxies)
		// Secret, in the same order as `proxies`.
		ctx.Export("credentials", fleet.Credentials)
		return nil
	})
}
