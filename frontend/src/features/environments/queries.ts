import { graphql } from "../../gql";

export const EnvironmentsPageQuery = graphql(`
  query EnvironmentsPage {
    inventory {
      tenant
      application
      environment
      deploymentId
      artifact {
        name
        version
      }
      sha256
      deployedAt
      deployedBy
    }
    activity(first: 200) {
      ...InFlight
    }
  }
`);

export const InFlightFragment = graphql(`
  fragment InFlight on Deployment {
    id
    tenant
    application
    environment
    state
    updatedAt
    artifact {
      version
    }
    currentStep
  }
`);

export const EnvironmentsFeedSubscription = graphql(`
  subscription EnvironmentsFeed {
    activity {
      kind
      deployment {
        ...InFlight
      }
    }
  }
`);
