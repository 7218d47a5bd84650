// The ns-3 side of `fanin crosscheck imc24` (ns3_imc24.py compiles it with cppyy after
// ns3_incast.cc, whose FlooredDctcp it uses): the IMC '24 artifact's dumbbell and its
// request/response application on persistent connections, written for mainline ns-3.
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>
#include <sstream>
#include <string>

namespace fanin_imc
{
using namespace ns3;

struct Rpc
{
    uint32_t n = 0;
    uint64_t response = 0;
    uint32_t bursts = 0;
    int64_t gapPs = 0;
    Ptr<UniformRandomVariable> jitter;

    std::vector<Ptr<Socket>> clients;          // receiver side, one per sender
    std::map<Socket*, uint32_t> clientIdx;
    std::map<Socket*, uint32_t> serverIdx;     // accepted sockets at the senders
    std::vector<Ptr<Socket>> servers;
    std::vector<uint64_t> rx;                  // response bytes received this burst
    uint32_t done = 0;
    uint32_t burst = 0;
    int64_t burstStartPs = 0;

    std::vector<int64_t> startPs, endPs;
    std::vector<uint64_t> dropsAtStart, drops;
    std::vector<double> meanQueue;

    Ptr<QueueDisc> bottleneck;
    QueueDiscContainer qdiscs;
    NetDeviceContainer devices;
    uint32_t qLen = 0;
    int64_t qLastPs = 0;
    double qIntegral = 0.0;
    uint64_t rtos = 0;
    // Per sender: the last traced cwnd, ssthresh (bytes) and congestion state, and their
    // values when each response is written (flattened burst by burst).
    std::vector<uint32_t> cwnd, ssthresh, state;
    std::vector<uint32_t> startCwnd, startSsthresh, startState;
    int64_t cwndSum = 0, cwndMax = 0;
    std::vector<int64_t> cwndMaxes;
    std::vector<uint64_t> bottleneckDrops, bottleneckPkts, bottleneckBytes; // cumulative, at each burst's end
};

static Rpc* r = nullptr;

static uint64_t
TotalDrops()
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < r->qdiscs.GetN(); i++)
    {
        s += r->qdiscs.Get(i)->GetStats().nTotalDroppedPackets;
    }
    for (uint32_t i = 0; i < r->devices.GetN(); i++)
    {
        s += DynamicCast<PointToPointNetDevice>(r->devices.Get(i))->GetQueue()->GetTotalDroppedPackets();
    }
    return s;
}

static void
OnQlen(uint32_t, uint32_t newLen)
{
    int64_t now = Simulator::Now().GetPicoSeconds();
    r->qIntegral += double(r->qLen) * double(now - r->qLastPs);
    r->qLastPs = now;
    r->qLen = newLen;
}

static void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t s)
{
    if (s == TcpSocketState::CA_LOSS)
    {
        r->rtos++;
    }
}

static void
OnCwnd(uint32_t i, uint32_t, uint32_t v)
{
    r->cwndSum += int64_t(v) - int64_t(r->cwnd[i]);
    r->cwnd[i] = v;
    if (r->cwndSum > r->cwndMax) { r->cwndMax = r->cwndSum; }
}

static void
OnSsthresh(uint32_t i, uint32_t, uint32_t v)
{
    r->ssthresh[i] = v;
}

static void
OnState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t s)
{
    r->state[i] = uint32_t(s);
}

static void
WriteResponse(uint32_t i)
{
    r->startCwnd.push_back(r->cwnd[i]);
    r->startSsthresh.push_back(r->ssthresh[i]);
    r->startState.push_back(r->state[i]);
    r->servers[i]->Send(Create<Packet>(uint32_t(r->response)));
}

static void
OnServerRecv(Ptr<Socket> s)
{
    uint32_t i = r->serverIdx[PeekPointer(s)];
    Ptr<Packet> p;
    while ((p = s->Recv()) && p->GetSize() > 0)
    {
        Simulator::Schedule(MicroSeconds(r->jitter->GetInteger(0, 99)), &WriteResponse, i);
    }
}

static void
OnAccept(Ptr<Socket> s, const Address& from)
{
    uint32_t ip = InetSocketAddress::ConvertFrom(from).GetIpv4().Get();
    (void)ip;
    s->SetRecvCallback(MakeCallback(&OnServerRecv));
    s->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
    uint32_t i = uint32_t(r->servers.size());
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnState, i));
    r->serverIdx[PeekPointer(s)] = i;
    r->servers.push_back(s);
}

static void SendRequest(uint32_t i)
{
    r->clients[i]->Send(Create<Packet>(4));
}

static void
StartBurst()
{
    int64_t now = Simulator::Now().GetPicoSeconds();
    r->burstStartPs = now;
    r->done = 0;
    std::fill(r->rx.begin(), r->rx.end(), 0);
    r->startPs.push_back(now);
    r->dropsAtStart.push_back(TotalDrops());
    r->qIntegral = 0.0;
    r->qLastPs = now;
    for (uint32_t i = 0; i < r->n; i++)
    {
        Simulator::Schedule(MicroSeconds(r->jitter->GetInteger(0, 99)), &SendRequest, i);
    }
}

static void
EndBurst()
{
    int64_t now = Simulator::Now().GetPicoSeconds();
    OnQlen(0, r->qLen);
    r->endPs.push_back(now);
    r->cwndMaxes.push_back(r->cwndMax);
    r->bottleneckDrops.push_back(r->bottleneck->GetStats().nTotalDroppedPackets);
    r->bottleneckPkts.push_back(r->bottleneck->GetStats().nTotalReceivedPackets);
    r->bottleneckBytes.push_back(r->bottleneck->GetStats().nTotalReceivedBytes);
    r->cwndMax = r->cwndSum;
    r->drops.push_back(TotalDrops() - r->dropsAtStart.back());
    r->meanQueue.push_back(r->qIntegral / double(now - r->burstStartPs));
    if (++r->burst < r->bursts)
    {
        Simulator::Schedule(PicoSeconds(r->gapPs), &StartBurst);
    }
    else
    {
        Simulator::Stop();
    }
}

static void
OnClientRecv(Ptr<Socket> s)
{
    uint32_t i = r->clientIdx[PeekPointer(s)];
    Ptr<Packet> p;
    while ((p = s->Recv()) && p->GetSize() > 0)
    {
        r->rx[i] += p->GetSize();
        if (r->rx[i] == r->response && ++r->done == r->n)
        {
            EndBurst();
        }
    }
}

static void
Connect(uint32_t i, InetSocketAddress to)
{
    r->clients[i]->Connect(to);
}

// Builds the dumbbell and schedules the connections and the first burst.
void
Build(uint32_t n, uint64_t response, uint32_t bursts, bool fidelity, uint32_t seed)
{
    delete r;
    r = new Rpc();
    r->n = n;
    r->response = response;
    r->bursts = bursts;
    r->gapPs = 1000000000000LL;
    r->rx.assign(n, 0);
    r->cwnd.assign(n, 10 * 1448);
    r->cwndSum = int64_t(n) * 10 * 1448;
    r->ssthresh.assign(n, UINT32_MAX);
    r->state.assign(n, 0);
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(1);
    r->jitter = CreateObject<UniformRandomVariable>();

    Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(1.0 / 16));
    Config::SetDefault("ns3::TcpDctcp::DctcpAlphaOnInit", DoubleValue(1.0));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(UINT32_MAX));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1000000000));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1000000000));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));

    NodeContainer senders, receiver, tors;
    senders.Create(n);
    receiver.Create(1);
    tors.Create(2); // 0: ToR_A (receiver side), 1: ToR_B (senders' side)
    InternetStackHelper stack;
    stack.InstallAll();
    // Senders run the fork's DCTCP; the receiver's sockets echo ECN classically (fidelity)
    // or the DCTCP way (paper mode).
    for (uint32_t i = 0; i < n; i++)
    {
        senders.Get(i)->GetObject<TcpL4Protocol>()->SetAttribute(
            "SocketType", TypeIdValue(fanin_xc::FlooredDctcp::GetTypeId()));
    }
    receiver.Get(0)->GetObject<TcpL4Protocol>()->SetAttribute(
        "SocketType", TypeIdValue(fidelity ? TcpNewReno::GetTypeId() : fanin_xc::FlooredDctcp::GetTypeId()));

    PointToPointHelper host, core;
    host.SetDeviceAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
    host.SetChannelAttribute("Delay", TimeValue(MicroSeconds(5)));
    core.SetDeviceAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    core.SetChannelAttribute("Delay", TimeValue(MicroSeconds(5)));
    const char* dev = fidelity ? "100p" : "1p";
    host.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(dev)));
    core.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(dev)));

    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, fidelity ? 1334 : 1333)),
                         "MinTh", DoubleValue(65), "MaxTh", DoubleValue(65),
                         "QW", DoubleValue(1.0), "LInterm", DoubleValue(1.0),
                         "UseEcn", BooleanValue(true), "UseHardDrop", BooleanValue(false));

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    auto link = [&](PointToPointHelper& h, Ptr<Node> a, Ptr<Node> b) {
        NetDeviceContainer d = h.Install(a, b);
        QueueDiscContainer q = tch.Install(d);
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        addr.NewNetwork();
        r->devices.Add(d);
        r->qdiscs.Add(q);
        return std::make_pair(ifs, q);
    };
    auto rx = link(host, receiver.Get(0), tors.Get(0));
    r->bottleneck = rx.second.Get(1); // ToR_A -> receiver
    link(core, tors.Get(1), tors.Get(0));
    std::vector<Ipv4Address> senderAddr;
    for (uint32_t i = 0; i < n; i++)
    {
        senderAddr.push_back(link(host, senders.Get(i), tors.Get(1)).first.GetAddress(0));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    r->bottleneck->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQlen));

    const uint16_t port = 5001;
    for (uint32_t i = 0; i < n; i++)
    {
        Ptr<Socket> l = Socket::CreateSocket(senders.Get(i), TcpSocketFactory::GetTypeId());
        l->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        l->Listen();
        l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(), MakeCallback(&OnAccept));
        Ptr<Socket> c = Socket::CreateSocket(receiver.Get(0), TcpSocketFactory::GetTypeId());
        c->Bind();
        c->SetRecvCallback(MakeCallback(&OnClientRecv));
        r->clientIdx[PeekPointer(c)] = i;
        r->clients.push_back(c);
        // Connections open 10 us apart (the artifact: 1 ms apart from t = 1 s).
        Simulator::ScheduleWithContext(receiver.Get(0)->GetId(), MicroSeconds(10 * (i + 1)), &Connect, i,
                                       InetSocketAddress(senderAddr[i], port));
    }
    Simulator::Schedule(MicroSeconds(10 * (n + 1)) + MilliSeconds(20), &StartBurst);
    Simulator::Stop(Seconds(200));
}

std::vector<int64_t> StartPs() { return r->startPs; }
std::vector<int64_t> EndPs() { return r->endPs; }
std::vector<uint64_t> Drops() { return r->drops; }
std::vector<double> MeanQueue() { return r->meanQueue; }
uint64_t Rtos() { return r->rtos; }
std::string DropReport()
{
    std::ostringstream o;
    for (uint32_t i = 0; i < r->qdiscs.GetN(); i++)
    {
        auto st = r->qdiscs.Get(i)->GetStats();
        if (st.nTotalDroppedPackets > 0 || st.nTotalMarkedPackets > 0) { o << "qdisc " << i << ": " << st << "\n"; }
    }
    for (uint32_t i = 0; i < r->devices.GetN(); i++)
    {
        auto d = DynamicCast<PointToPointNetDevice>(r->devices.Get(i))->GetQueue()->GetTotalDroppedPackets();
        if (d > 0) { o << "device " << i << ": " << d << "\n"; }
    }
    return o.str();
}
std::vector<uint64_t> BottleneckDrops() { return r->bottleneckDrops; }
std::vector<uint64_t> BottleneckPkts() { return r->bottleneckPkts; }
std::vector<uint64_t> BottleneckBytes() { return r->bottleneckBytes; }
std::vector<int64_t> CwndMaxes() { return r->cwndMaxes; }
std::vector<uint32_t> StartCwnd() { return r->startCwnd; }
std::vector<uint32_t> StartSsthresh() { return r->startSsthresh; }
std::vector<uint32_t> StartState() { return r->startState; }
uint64_t Events() { return Simulator::GetEventCount(); }
} // namespace fanin_imc
